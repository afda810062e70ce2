import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-2ZQB2W7Y.js";import"./extension-chunk-M7RPF5XQ.js";import"./extension-chunk-MNVHR6LT.js";import"./extension-chunk-7VKJIUGT.js";import"./extension-chunk-LDMBWPPX.js";import"./extension-chunk-4AJF5N5E.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-WGFXZKWV.js.map
