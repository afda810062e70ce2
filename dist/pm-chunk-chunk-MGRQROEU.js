import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{ue as e,ve as n,we as t}from"./pm-chunk-chunk-AEMJYHSR.js";var S=e;var C=n;var E=t;export{S as a,C as b,E as c};
//# sourceMappingURL=pm-chunk-chunk-MGRQROEU.js.map
