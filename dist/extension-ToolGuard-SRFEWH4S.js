import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-XRRZU5GY.js";import"./extension-chunk-VKMU35PH.js";import"./extension-chunk-U3IEYLN4.js";import"./extension-chunk-3T6DHTTG.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-SRFEWH4S.js.map
