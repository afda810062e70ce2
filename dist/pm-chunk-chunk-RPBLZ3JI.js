import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{e as t,f as e,g as n,h as r,i as o}from"./pm-chunk-chunk-SZHJRHZQ.js";var _o=t;var Uo=e;var No=n;var jo=r;var qo=o;export{_o as a,Uo as b,No as c,jo as d,qo as e};
//# sourceMappingURL=pm-chunk-chunk-RPBLZ3JI.js.map
