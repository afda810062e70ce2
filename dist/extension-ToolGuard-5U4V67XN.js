import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-WXVESVD2.js";import"./extension-chunk-E3DLNTDT.js";import"./extension-chunk-LJRL5YW7.js";import"./extension-chunk-N4CZYYWW.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-5U4V67XN.js.map
