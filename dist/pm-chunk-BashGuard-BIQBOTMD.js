import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a,b}from"./pm-chunk-chunk-KVOK4XVS.js";import"./pm-chunk-chunk-H4AXHC5B.js";import"./pm-chunk-chunk-LTQHKAXY.js";export{a as BashGuard,b as runDelete};
//# sourceMappingURL=pm-chunk-BashGuard-BIQBOTMD.js.map
