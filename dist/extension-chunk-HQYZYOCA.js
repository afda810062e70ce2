import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{C as n}from"./extension-chunk-3O5R5Q3W.js";var r="PM_QUEUE_WORKER",i="queue-worker.log";var t=e=>e[r]!=="0",d=e=>e==="print"||e==="json",E=(e,o)=>d(e)&&t(o);var R=e=>e!==void 0&&e>n?"w":"a";export{i as a,E as b,R as c};
//# sourceMappingURL=extension-chunk-HQYZYOCA.js.map
