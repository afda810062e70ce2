import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a,b}from"./pm-chunk-chunk-4B2MUPJN.js";import"./pm-chunk-chunk-YJSIB6XM.js";import"./pm-chunk-chunk-LY4OJAPP.js";export{a as BashGuard,b as runDelete};
//# sourceMappingURL=pm-chunk-BashGuard-GR654G76.js.map
