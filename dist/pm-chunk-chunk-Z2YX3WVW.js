import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{Re as t}from"./pm-chunk-chunk-MFIVONNS.js";var Pt=t;export{Pt as a};
//# sourceMappingURL=pm-chunk-chunk-Z2YX3WVW.js.map
