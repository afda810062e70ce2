import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-4KESDUTL.js";import"./extension-chunk-5JGINYHZ.js";import"./extension-chunk-HVRXV66A.js";import"./extension-chunk-E7FVJSDL.js";import"./extension-chunk-3T6DHTTG.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-K6XTJTP5.js.map
