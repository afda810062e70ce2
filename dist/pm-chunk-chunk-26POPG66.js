import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{Re as t}from"./pm-chunk-chunk-LY4OJAPP.js";var Pt=t;export{Pt as a};
//# sourceMappingURL=pm-chunk-chunk-26POPG66.js.map
