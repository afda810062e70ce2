import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{A as n,C as s,l as t,t as e}from"./extension-chunk-54Z3TYEV.js";var f=(o,i,u,c=t(e()))=>{let r=!1;try{r=u()}catch{}return r||!n(o,i,c)?void 0:{block:!0,reason:s(o)}};export{f as a};
//# sourceMappingURL=extension-chunk-3B3DRDDE.js.map
