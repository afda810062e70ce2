import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{m as e,t as n,v as s}from"./extension-chunk-BYIBRO4W.js";import{a as t}from"./extension-chunk-MNVHR6LT.js";var f=(o,i,u,c=t(e()))=>{let r=!1;try{r=u()}catch{}return r||!n(o,i,c)?void 0:{block:!0,reason:s(o)}};export{f as a};
//# sourceMappingURL=extension-chunk-5N5WXVU5.js.map
