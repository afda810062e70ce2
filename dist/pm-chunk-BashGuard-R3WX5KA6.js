import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a,b}from"./pm-chunk-chunk-7AJE34VS.js";import"./pm-chunk-chunk-Z7WXHF5K.js";import"./pm-chunk-chunk-HPDUJ7QL.js";export{a as BashGuard,b as runDelete};
//# sourceMappingURL=pm-chunk-BashGuard-R3WX5KA6.js.map
