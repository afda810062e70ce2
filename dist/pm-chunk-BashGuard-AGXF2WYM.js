import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a,b}from"./pm-chunk-chunk-4EIF7TZK.js";import"./pm-chunk-chunk-GX3YFYJX.js";import"./pm-chunk-chunk-PNVX3IXI.js";export{a as BashGuard,b as runDelete};
//# sourceMappingURL=pm-chunk-BashGuard-AGXF2WYM.js.map
