import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a,b}from"./pm-chunk-chunk-F2ISHRW2.js";import"./pm-chunk-chunk-U6ESOK43.js";import"./pm-chunk-chunk-AEMJYHSR.js";export{a as BashGuard,b as runDelete};
//# sourceMappingURL=pm-chunk-BashGuard-44UKKMVZ.js.map
