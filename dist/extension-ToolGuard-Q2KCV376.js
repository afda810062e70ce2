import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-SA66KBGG.js";import"./extension-chunk-COT7YQSC.js";import"./extension-chunk-MNVHR6LT.js";import"./extension-chunk-OYQNXFKQ.js";import"./extension-chunk-LDMBWPPX.js";import"./extension-chunk-Y2M3U6WG.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-Q2KCV376.js.map
