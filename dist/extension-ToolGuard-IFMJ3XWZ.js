import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-KAGBE6UO.js";import"./extension-chunk-7IGZ7GL3.js";import"./extension-chunk-M5A3XGON.js";import"./extension-chunk-SHZRF5EH.js";import"./extension-chunk-3T6DHTTG.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-IFMJ3XWZ.js.map
