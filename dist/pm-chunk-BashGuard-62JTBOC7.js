import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a,b}from"./pm-chunk-chunk-L4YXEZGZ.js";import"./pm-chunk-chunk-FW5EH3XW.js";import"./pm-chunk-chunk-H7JGJB5H.js";export{a as BashGuard,b as runDelete};
//# sourceMappingURL=pm-chunk-BashGuard-62JTBOC7.js.map
