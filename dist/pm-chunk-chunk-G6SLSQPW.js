import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{Ng as a,hf as o}from"./pm-chunk-chunk-2MMGSAAK.js";var E=1,l=2,u=t=>o(()=>{(process.exitCode??0)<t&&(process.exitCode=t)}),d=t=>o(()=>process.stdout.write(`${JSON.stringify(t,null,2)}
`)),g=(t="")=>o(()=>process.stdout.write(`${t}
`)),m=t=>o(()=>process.stderr.write(`pm: ${t.split(`
`)[0]}
`)),h=t=>a(m(t),u(l)),y=(t,s)=>{let n=Math.max(0,Math.floor((s-t)/1e3));return n<60?"now":n<3600?`${Math.floor(n/60)}m`:n<86400?`${Math.floor(n/3600)}h`:`${Math.floor(n/86400)}d`},M=(t,s,n=process.stdout.columns??120)=>{let i=[t,...s],f=t.map((c,r)=>Math.max(...i.map(e=>(e[r]??"").length)));return i.map(c=>{let r=c.map((e,p)=>p===c.length-1?e:e.padEnd(f[p]??0)).join("  ");return r.length>n?`${r.slice(0,Math.max(10,n-1)).replace(/[\uD800-\uDBFF]$/,"")}\u2026`:r}).join(`
`)};export{E as a,l as b,u as c,d,g as e,m as f,h as g,y as h,M as i};
//# sourceMappingURL=pm-chunk-chunk-G6SLSQPW.js.map
