import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-XVXTYS2C.js";import"./extension-chunk-3GQFXSSG.js";import"./extension-chunk-R23GAHHV.js";import"./extension-chunk-2MKCSE7E.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-ALWZ4QYU.js.map
