import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{Re as t}from"./pm-chunk-chunk-GHIZEOQ5.js";var Pt=t;export{Pt as a};
//# sourceMappingURL=pm-chunk-chunk-DQOAYQXM.js.map
