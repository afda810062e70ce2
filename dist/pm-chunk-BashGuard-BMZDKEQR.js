import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a,b}from"./pm-chunk-chunk-74DHQUXG.js";import"./pm-chunk-chunk-XBSWHZFR.js";import"./pm-chunk-chunk-KOKJRPNN.js";export{a as BashGuard,b as runDelete};
//# sourceMappingURL=pm-chunk-BashGuard-BMZDKEQR.js.map
