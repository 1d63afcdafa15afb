/*
 * batch_scan.c: nanoseconds per entry of a cs_cursor_next_batch scan that
 * reads keys and values (1M 8-byte big-endian keys, 90-byte values: the
 * shape of an object tree), best of 15 scans. Build it against any engine
 * revision to compare leaf layouts:
 *   clang -std=c11 -O2 -D_GNU_SOURCE -I<tree>/Sources/CStorage/include \
 *     -I<tree>/Sources/CStorage -o batch_scan batch_scan.c \
 *     <tree>/Sources/CStorage/[a-z]*.c -lpthread
 *   ./batch_scan /tmp/some-new-file
 */
#include "cstorage.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){(void)argc;
  const char*path=argv[1]; unsigned n=1000000;
  cs_env*env; if(cs_env_open(path,NULL,&env)){fprintf(stderr,"open %s\n",cs_last_error_detail());return 1;}
  cs_txn*t; cs_tree tr;
  cs_txn_begin(env,0,&t); cs_tree_open(t,"t",CS_CREATE,&tr);
  uint8_t v[90]; memset(v,7,90);
  for(unsigned i=0;i<n;i++){uint8_t k[8];for(int b=0;b<8;b++)k[b]=(uint8_t)((uint64_t)i>>(56-8*b));
    cs_val kv={k,8},vv={v,90}; if(cs_put(t,tr,kv,vv,0)){fprintf(stderr,"put %s\n",cs_last_error_detail());return 1;}}
  cs_txn_commit(t);
  double best=1e9;
  for(int r=0;r<15;r++){
    cs_txn_begin(env,CS_TXN_RDONLY,&t); cs_cursor*c; cs_cursor_open(t,tr,&c);
    cs_val ks[64],vs[64]; size_t got; uint64_t sum=0,cnt=0; double t0=now();
    while(cs_cursor_next_batch(c,ks,vs,64,&got)==0&&got){for(size_t i=0;i<got;i++){sum+=((const uint8_t*)ks[i].data)[7]+vs[i].size;}cnt+=got;}
    double dt=now()-t0; if(dt<best)best=dt;
    cs_cursor_close(c); cs_txn_abort(t);
    if(cnt!=n){fprintf(stderr,"cnt %llu\n",(unsigned long long)cnt);return 1;}
    (void)sum;
  }
  printf("%.1f ns/entry\n",best*1e9/n);
  cs_env_close(env); return 0;
}
