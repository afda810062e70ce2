import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-3B3DRDDE.js";import"./extension-chunk-54Z3TYEV.js";import"./extension-chunk-QQF5WCSS.js";import"./extension-chunk-LZZZJHLB.js";import"./extension-chunk-UNVSKE3H.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-WKONHCNH.js.map
