import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-BLBJOD76.js";import"./extension-chunk-BTJBEQIY.js";import"./extension-chunk-I74ENOCD.js";import"./extension-chunk-MNVHR6LT.js";import"./extension-chunk-FCDWF2B7.js";import"./extension-chunk-W6G2ATXT.js";import"./extension-chunk-RZSXEOZE.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-6WGXX7VO.js.map
