import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-MVVU3MQM.js";import"./extension-chunk-OODLHRJX.js";import"./extension-chunk-ZYI3QREG.js";import"./extension-chunk-M6KDLXM7.js";import"./extension-chunk-UNVSKE3H.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-SHKDPI2H.js.map
