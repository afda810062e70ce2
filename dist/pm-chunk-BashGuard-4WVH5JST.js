import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a,b}from"./pm-chunk-chunk-ANFHK2FM.js";import"./pm-chunk-chunk-D7RCHNGH.js";import"./pm-chunk-chunk-MKVLONNN.js";export{a as BashGuard,b as runDelete};
//# sourceMappingURL=pm-chunk-BashGuard-4WVH5JST.js.map
