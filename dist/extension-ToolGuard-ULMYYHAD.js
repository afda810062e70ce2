import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-XAE3DNIU.js";import"./extension-chunk-6MW5X2MS.js";import"./extension-chunk-QHSQM425.js";import"./extension-chunk-ZZDTP5XX.js";import"./extension-chunk-3T6DHTTG.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-ULMYYHAD.js.map
