import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{$c as p,Sc as e,Tc as r,Uc as o,Vc as t,Wc as c,Xc as d,Zc as n,_c as s}from"./pm-chunk-chunk-H7JGJB5H.js";var I=r;var h=o;var F=t,M=c;var W=d;var w=n;var A=s;var T=e,U=p;export{I as a,h as b,F as c,M as d,W as e,w as f,A as g,T as h,U as i};
//# sourceMappingURL=pm-chunk-chunk-CHGEPWMD.js.map
