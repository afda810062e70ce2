import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-BYWVZOB7.js";import"./extension-chunk-XLX56T3Y.js";import"./extension-chunk-HVRXV66A.js";import"./extension-chunk-E7FVJSDL.js";import"./extension-chunk-3T6DHTTG.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-UYY2PWCG.js.map
