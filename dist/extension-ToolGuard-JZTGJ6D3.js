import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-CJHVL6NL.js";import"./extension-chunk-HKYS5SF2.js";import"./extension-chunk-MNVHR6LT.js";import"./extension-chunk-VSHK2D2U.js";import"./extension-chunk-RYVCA7BY.js";import"./extension-chunk-4AJF5N5E.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-JZTGJ6D3.js.map
