import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{Cc as e,Dc as r,Ec as o,Fc as t,Hc as c,Ic as d}from"./pm-chunk-chunk-LTQHKAXY.js";var I=e;var h=r;var F=o;var M=t;var W=c;var w=d;export{I as a,h as b,F as c,M as d,W as e,w as f};
//# sourceMappingURL=pm-chunk-chunk-R2YHVBMJ.js.map
