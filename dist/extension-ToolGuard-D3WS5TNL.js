import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-I6F23YKZ.js";import"./extension-chunk-ODVYSGAU.js";import"./extension-chunk-DRHTHM3T.js";import"./extension-chunk-2MKCSE7E.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-D3WS5TNL.js.map
