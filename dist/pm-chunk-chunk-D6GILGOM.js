import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{Se as t}from"./pm-chunk-chunk-H7JGJB5H.js";var Pt=t;export{Pt as a};
//# sourceMappingURL=pm-chunk-chunk-D6GILGOM.js.map
