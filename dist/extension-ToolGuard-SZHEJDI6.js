import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-5N5WXVU5.js";import"./extension-chunk-BYIBRO4W.js";import"./extension-chunk-XJSA7HN7.js";import"./extension-chunk-MNVHR6LT.js";import"./extension-chunk-QKWDQ5XE.js";import"./extension-chunk-W6G2ATXT.js";import"./extension-chunk-TKE4I3RN.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-SZHEJDI6.js.map
