import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-26D6VX6U.js";import"./extension-chunk-VN4PVYGV.js";import"./extension-chunk-N2A3Q65Z.js";import"./extension-chunk-22TAQMVP.js";import"./extension-chunk-3T6DHTTG.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-Z535E4ED.js.map
