import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a,b}from"./pm-chunk-chunk-GW7MB54C.js";import"./pm-chunk-chunk-DMUO2LP7.js";import"./pm-chunk-chunk-GHIZEOQ5.js";export{a as BashGuard,b as runDelete};
//# sourceMappingURL=pm-chunk-BashGuard-ZS3LI5S4.js.map
