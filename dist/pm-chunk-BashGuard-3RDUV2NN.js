import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a,b}from"./pm-chunk-chunk-ZDLSWQNA.js";import"./pm-chunk-chunk-TZNAT6UJ.js";import"./pm-chunk-chunk-BVHI2QRO.js";export{a as BashGuard,b as runDelete};
//# sourceMappingURL=pm-chunk-BashGuard-3RDUV2NN.js.map
