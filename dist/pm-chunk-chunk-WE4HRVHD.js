import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{Ae as t,ye as e,ze as n}from"./pm-chunk-chunk-H7JGJB5H.js";var S=e;var C=n;var E=t;export{S as a,C as b,E as c};
//# sourceMappingURL=pm-chunk-chunk-WE4HRVHD.js.map
