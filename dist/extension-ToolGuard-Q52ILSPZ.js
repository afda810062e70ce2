import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-7MIMWJ23.js";import"./extension-chunk-7BDOYD3I.js";import"./extension-chunk-JJKZIBY5.js";import"./extension-chunk-2MKCSE7E.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-Q52ILSPZ.js.map
