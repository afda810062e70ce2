import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
var t=r=>{if(!Number.isSafeInteger(r))return String(r);let e=String(Math.abs(r)).replace(/\B(?=(\d{3})+(?!\d))/g,",");return r<0||Object.is(r,-0)?`-${e}`:e};export{t as a};
//# sourceMappingURL=pm-chunk-chunk-WDENK6AX.js.map
