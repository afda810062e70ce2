import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{H as s}from"./pm-chunk-chunk-REVBMHXG.js";import{createHash as n}from"node:crypto";var i=t=>{let e=0;for(let r=0;r<t.length;r++)e=Math.imul(31,e)+t.charCodeAt(r)|0;return e},o=t=>t.replace(/[^a-zA-Z0-9]/g,"-"),a=t=>{let e=o(t);return e.length<=s?e:`${e.slice(0,s)}-${Math.abs(i(t)).toString(36)}`},g=t=>n("sha256").update(t).digest("hex").slice(0,24),l=t=>`${a(t)}-${g(t)}`;export{a,g as b,l as c};
//# sourceMappingURL=pm-chunk-chunk-LFMQLQPG.js.map
