import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{C as n}from"./extension-chunk-ZZDTP5XX.js";var r="PM_QUEUE_WORKER",i="queue-worker.log";var t=e=>e[r]!=="0",d=e=>e==="print"||e==="json",E=(e,o)=>d(e)&&t(o);var R=e=>e!==void 0&&e>n?"w":"a";export{i as a,E as b,R as c};
//# sourceMappingURL=extension-chunk-LEWICIYK.js.map
