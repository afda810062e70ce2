import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{B as s,k as t,s as e,z as n}from"./extension-chunk-CIF4SF3X.js";var f=(o,i,u,c=t(e()))=>{let r=!1;try{r=u()}catch{}return r||!n(o,i,c)?void 0:{block:!0,reason:s(o)}};export{f as a};
//# sourceMappingURL=extension-chunk-ICB4YUTK.js.map
