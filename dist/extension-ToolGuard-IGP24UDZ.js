import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-BP5CFEPM.js";import"./extension-chunk-FXUUCKYO.js";import"./extension-chunk-MNVHR6LT.js";import"./extension-chunk-BJ5V5IR3.js";import"./extension-chunk-LDMBWPPX.js";import"./extension-chunk-JMSMBYOC.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-IGP24UDZ.js.map
