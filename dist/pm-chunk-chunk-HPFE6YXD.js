import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{Tc as e,Uc as r,Vc as o,Wc as t,Yc as c,Zc as d,_c as n}from"./pm-chunk-chunk-LY4OJAPP.js";var I=e;var h=r;var F=o;var M=t;var W=c;var w=d;var A=n;export{I as a,h as b,F as c,M as d,W as e,w as f,A as g};
//# sourceMappingURL=pm-chunk-chunk-HPFE6YXD.js.map
