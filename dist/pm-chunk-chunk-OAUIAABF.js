import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{Se as t}from"./pm-chunk-chunk-P3HTPOA4.js";var Pt=t;export{Pt as a};
//# sourceMappingURL=pm-chunk-chunk-OAUIAABF.js.map
