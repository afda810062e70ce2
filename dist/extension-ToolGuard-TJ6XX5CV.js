import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-VJG2GWT3.js";import"./extension-chunk-GZ7V2BGO.js";import"./extension-chunk-MNVHR6LT.js";import"./extension-chunk-TVFGAVPP.js";import"./extension-chunk-3O5R5Q3W.js";import"./extension-chunk-DZBCEXCQ.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-TJ6XX5CV.js.map
