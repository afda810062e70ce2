import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a,b}from"./pm-chunk-chunk-WKYNOQA4.js";import"./pm-chunk-chunk-PAG3TSC6.js";import"./pm-chunk-chunk-MFIVONNS.js";export{a as BashGuard,b as runDelete};
//# sourceMappingURL=pm-chunk-BashGuard-T3M7DOD2.js.map
