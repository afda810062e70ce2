import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{Sc as e,Tc as r,Uc as o,Vc as t,Xc as c,Yc as d,Zc as n}from"./pm-chunk-chunk-AEMJYHSR.js";var I=e;var h=r;var F=o;var M=t;var W=c;var w=d;var A=n;export{I as a,h as b,F as c,M as d,W as e,w as f,A as g};
//# sourceMappingURL=pm-chunk-chunk-M5YZI5B7.js.map
