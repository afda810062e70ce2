import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-MU6VIPXU.js";import"./extension-chunk-EDPQA3NZ.js";import"./extension-chunk-MNVHR6LT.js";import"./extension-chunk-TTT5AKLX.js";import"./extension-chunk-MK24DTH4.js";import"./extension-chunk-JTHE4BKZ.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-G2U7URKK.js.map
