import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-O4LBJJHD.js";import"./extension-chunk-XJLBAYO2.js";import"./extension-chunk-XJSA7HN7.js";import"./extension-chunk-MNVHR6LT.js";import"./extension-chunk-QKWDQ5XE.js";import"./extension-chunk-W6G2ATXT.js";import"./extension-chunk-TKE4I3RN.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-WQVGTNUX.js.map
