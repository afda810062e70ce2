import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{v as r}from"./pm-chunk-chunk-REVBMHXG.js";var o=(e,n)=>Math.floor((n-e)/r);var a=(e,n)=>{let t=o(e,n);return t>1?`This memory was last changed ${t} days ago. It records what was true then: check it against the current code before relying on it, and update or delete it if it is wrong.`:void 0};export{o as a,a as b};
//# sourceMappingURL=pm-chunk-chunk-EMWUCN63.js.map
