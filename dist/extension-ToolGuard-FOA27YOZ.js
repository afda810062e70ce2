import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-YJHYQERR.js";import"./extension-chunk-2P62UTIT.js";import"./extension-chunk-WN7T3566.js";import"./extension-chunk-MNVHR6LT.js";import"./extension-chunk-FCDWF2B7.js";import"./extension-chunk-MK24DTH4.js";import"./extension-chunk-RZSXEOZE.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-FOA27YOZ.js.map
