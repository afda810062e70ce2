import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{xe as e,ye as n,ze as t}from"./pm-chunk-chunk-LY4OJAPP.js";var S=e;var C=n;var E=t;export{S as a,C as b,E as c};
//# sourceMappingURL=pm-chunk-chunk-RSOGWCOV.js.map
