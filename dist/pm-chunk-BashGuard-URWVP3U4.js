import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a,b}from"./pm-chunk-chunk-V35LPX7L.js";import"./pm-chunk-chunk-ZOIJLSXP.js";import"./pm-chunk-chunk-P3HTPOA4.js";export{a as BashGuard,b as runDelete};
//# sourceMappingURL=pm-chunk-BashGuard-URWVP3U4.js.map
