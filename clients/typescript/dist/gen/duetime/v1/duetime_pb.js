// duetime v1: absolute due times from business calendars, each answer recorded.
//
// The rules every answer follows are docs/semantics.md; its numbered sections
// are cited below as "docs/semantics.md §N".
import { enumDesc, fileDesc, messageDesc, serviceDesc } from "@bufbuild/protobuf/codegenv2";
import { file_google_api_annotations } from "../../google/api/annotations_pb.js";
import { file_google_protobuf_any, file_google_protobuf_duration, file_google_protobuf_timestamp } from "@bufbuild/protobuf/wkt";
import { file_google_rpc_status } from "../../google/rpc/status_pb.js";
/**
 * Describes the file duetime/v1/duetime.proto.
 */
export const file_duetime_v1_duetime = /*@__PURE__*/ fileDesc("ChhkdWV0aW1lL3YxL2R1ZXRpbWUucHJvdG8SCmR1ZXRpbWUudjEi5gIKCENhbGVuZGFyEhEKCXRpbWVfem9uZRgBIAEoCRIlCghob2xpZGF5cxgCIAMoCzITLmR1ZXRpbWUudjEuSG9saWRheRIoCgd3ZWVrZW5kGAMgASgLMhcuZHVldGltZS52MS5XZWVrZW5kRGF5cxIvCg13b3JraW5nX2hvdXJzGAQgASgLMhguZHVldGltZS52MS5Xb3JraW5nSG91cnMSMAoOZGF0ZV9vdmVycmlkZXMYBSADKAsyGC5kdWV0aW1lLnYxLkRhdGVPdmVycmlkZRI3ChJleHRyYV93b3JraW5nX2RheXMYBiADKAsyGy5kdWV0aW1lLnYxLkV4dHJhV29ya2luZ0RheRIcChRob2xpZGF5c192YWxpZF91bnRpbBgHIAEoCRIOCgZidW5kbGUYCCABKAkSLAoMd2Vla19wZXJpb2RzGAkgAygLMhYuZHVldGltZS52MS5XZWVrUGVyaW9kInoKCldlZWtQZXJpb2QSEQoJZnJvbV9kYXRlGAEgASgJEigKB3dlZWtlbmQYAiABKAsyFy5kdWV0aW1lLnYxLldlZWtlbmREYXlzEi8KDXdvcmtpbmdfaG91cnMYAyABKAsyGC5kdWV0aW1lLnYxLldvcmtpbmdIb3VycyJnCgxEYXRlT3ZlcnJpZGUSDAoEZGF0ZRgBIAEoCRIrCglpbnRlcnZhbHMYAiADKAsyGC5kdWV0aW1lLnYxLlRpbWVJbnRlcnZhbBIOCgZjbG9zZWQYAyABKAgSDAoEbmFtZRgEIAEoCSItCg9FeHRyYVdvcmtpbmdEYXkSDAoEZGF0ZRgBIAEoCRIMCgRuYW1lGAIgASgJIsoBCg9FeHBsYW5hdGlvblN0ZXASDAoEa2luZBgBIAEoCRIMCgR0ZXh0GAIgASgJEhIKCmxvY2FsX2RhdGUYAyABKAkSLgoKc3RhcnRfdGltZRgEIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXASLAoIZW5kX3RpbWUYBSABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wEikKBmFtb3VudBgGIAEoCzIZLmdvb2dsZS5wcm90b2J1Zi5EdXJhdGlvbiIlCgdIb2xpZGF5EgwKBGRhdGUYASABKAkSDAoEbmFtZRgCIAEoCSIwCgtXZWVrZW5kRGF5cxIhCgRkYXlzGAEgAygOMhMuZHVldGltZS52MS5XZWVrZGF5IjIKDFdvcmtpbmdIb3VycxIiCgRkYXlzGAEgAygLMhQuZHVldGltZS52MS5EYXlIb3VycyJdCghEYXlIb3VycxIkCgd3ZWVrZGF5GAEgASgOMhMuZHVldGltZS52MS5XZWVrZGF5EisKCWludGVydmFscxgCIAMoCzIYLmR1ZXRpbWUudjEuVGltZUludGVydmFsIioKDFRpbWVJbnRlcnZhbBINCgVzdGFydBgBIAEoCRILCgNlbmQYAiABKAkigwIKFUNvbXB1dGVEdWVUaW1lUmVxdWVzdBIpCgVzdGFydBgBIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXASEAoIZHVyYXRpb24YAiABKAkSJgoIY2FsZW5kYXIYAyABKAsyFC5kdWV0aW1lLnYxLkNhbGVuZGFyEhcKD2lkZW1wb3RlbmN5X2tleRgEIAEoCRIlCghhdF9jbG9zZRgFIAEoDjITLmR1ZXRpbWUudjEuQXRDbG9zZRIPCgdleHBsYWluGAYgASgIEh4KBHJvbGwYByABKA4yEC5kdWV0aW1lLnYxLlJvbGwSFAoMbGFuZGluZ190aW1lGAggASgJIocCChZDb21wdXRlRHVlVGltZVJlc3BvbnNlEicKA2R1ZRgBIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXASEQoJZHVlX2xvY2FsGAIgASgJEhEKCXRpbWVfem9uZRgDIAEoCRIRCglyZWNvcmRfaWQYBCABKAkSGAoQY2FsZW5kYXJfdmVyc2lvbhgFIAEoCRIVCg1ydWxlc192ZXJzaW9uGAYgASgJEhYKDnR6ZGF0YV92ZXJzaW9uGAcgASgJEhAKCHdhcm5pbmdzGAggAygJEjAKC2V4cGxhbmF0aW9uGAkgAygLMhsuZHVldGltZS52MS5FeHBsYW5hdGlvblN0ZXAiTwobQmF0Y2hDb21wdXRlRHVlVGltZXNSZXF1ZXN0EjAKBWl0ZW1zGAEgAygLMiEuZHVldGltZS52MS5Db21wdXRlRHVlVGltZVJlcXVlc3QiTAocQmF0Y2hDb21wdXRlRHVlVGltZXNSZXNwb25zZRIsCgdyZXN1bHRzGAEgAygLMhsuZHVldGltZS52MS5CYXRjaEl0ZW1SZXN1bHQieAoPQmF0Y2hJdGVtUmVzdWx0EjYKCHJlc3BvbnNlGAEgASgLMiIuZHVldGltZS52MS5Db21wdXRlRHVlVGltZVJlc3BvbnNlSAASIwoFZXJyb3IYAiABKAsyEi5nb29nbGUucnBjLlN0YXR1c0gAQggKBnJlc3VsdCJQChxTdHJlYW1Db21wdXRlRHVlVGltZXNSZXF1ZXN0EjAKBWl0ZW1zGAEgAygLMiEuZHVldGltZS52MS5Db21wdXRlRHVlVGltZVJlcXVlc3QiTQodU3RyZWFtQ29tcHV0ZUR1ZVRpbWVzUmVzcG9uc2USLAoHcmVzdWx0cxgBIAMoCzIbLmR1ZXRpbWUudjEuQmF0Y2hJdGVtUmVzdWx0IswBChpDb21wdXRlQnVzaW5lc3NUaW1lUmVxdWVzdBIuCgpzdGFydF90aW1lGAEgASgLMhouZ29vZ2xlLnByb3RvYnVmLlRpbWVzdGFtcBIsCghlbmRfdGltZRgCIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXASJgoIY2FsZW5kYXIYAyABKAsyFC5kdWV0aW1lLnYxLkNhbGVuZGFyEg8KB2V4cGxhaW4YBCABKAgSFwoPaWRlbXBvdGVuY3lfa2V5GAUgASgJIpkCChtDb21wdXRlQnVzaW5lc3NUaW1lUmVzcG9uc2USMAoNYnVzaW5lc3NfdGltZRgBIAEoCzIZLmdvb2dsZS5wcm90b2J1Zi5EdXJhdGlvbhIVCg1idXNpbmVzc19kYXlzGAIgASgDEhEKCXRpbWVfem9uZRgDIAEoCRIRCglyZWNvcmRfaWQYBCABKAkSGAoQY2FsZW5kYXJfdmVyc2lvbhgFIAEoCRIVCg1ydWxlc192ZXJzaW9uGAYgASgJEhYKDnR6ZGF0YV92ZXJzaW9uGAcgASgJEhAKCHdhcm5pbmdzGAggAygJEjAKC2V4cGxhbmF0aW9uGAkgAygLMhsuZHVldGltZS52MS5FeHBsYW5hdGlvblN0ZXAimwEKFEdldE9wZW5TdGF0dXNSZXF1ZXN0EigKBHRpbWUYASABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wEiYKCGNhbGVuZGFyGAIgASgLMhQuZHVldGltZS52MS5DYWxlbmRhchIXCg9pZGVtcG90ZW5jeV9rZXkYAyABKAkSGAoQaW5jbHVkZV9sYXN0X3J1bhgEIAEoCCJsCgxPcGVuSW50ZXJ2YWwSLgoKc3RhcnRfdGltZRgBIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXASLAoIZW5kX3RpbWUYAiABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wIoMEChVHZXRPcGVuU3RhdHVzUmVzcG9uc2USDAoEb3BlbhgBIAEoCBIyChBjdXJyZW50X2ludGVydmFsGAIgASgLMhguZHVldGltZS52MS5PcGVuSW50ZXJ2YWwSMgoObmV4dF9vcGVuX3RpbWUYAyABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wEjMKD25leHRfY2xvc2VfdGltZRgEIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXASFAoMYnVzaW5lc3NfZGF5GAUgASgIEhIKCmxvY2FsX2RhdGUYBiABKAkSFQoNY2xvc2VkX3JlYXNvbhgHIAEoCRIUCgxob2xpZGF5X25hbWUYCCABKAkSEQoJdGltZV96b25lGAkgASgJEhEKCXJlY29yZF9pZBgKIAEoCRIYChBjYWxlbmRhcl92ZXJzaW9uGAsgASgJEhUKDXJ1bGVzX3ZlcnNpb24YDCABKAkSFgoOdHpkYXRhX3ZlcnNpb24YDSABKAkSEAoId2FybmluZ3MYDiADKAkSMgoObGFzdF9vcGVuX3RpbWUYDyABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wEjMKD2xhc3RfY2xvc2VfdGltZRgQIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXAicwoMRGVhZGxpbmVTcGVjEgwKBG5hbWUYASABKAkSEAoIZHVyYXRpb24YAiABKAkSDQoFYWZ0ZXIYAyABKAkSHgoEcm9sbBgEIAEoDjIQLmR1ZXRpbWUudjEuUm9sbBIUCgxsYW5kaW5nX3RpbWUYBSABKAki8AEKFkNvbXB1dGVTY2hlZHVsZVJlcXVlc3QSMAoMZW50ZXJlZF90aW1lGAEgASgLMhouZ29vZ2xlLnByb3RvYnVmLlRpbWVzdGFtcBImCghjYWxlbmRhchgCIAEoCzIULmR1ZXRpbWUudjEuQ2FsZW5kYXISKwoJZGVhZGxpbmVzGAMgAygLMhguZHVldGltZS52MS5EZWFkbGluZVNwZWMSJQoIYXRfY2xvc2UYBCABKA4yEy5kdWV0aW1lLnYxLkF0Q2xvc2USDwoHZXhwbGFpbhgFIAEoCBIXCg9pZGVtcG90ZW5jeV9rZXkYBiABKAki0gEKEVNjaGVkdWxlZERlYWRsaW5lEgwKBG5hbWUYASABKAkSLAoIZHVlX3RpbWUYAiABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wEhEKCWR1ZV9sb2NhbBgDIAEoCRItCglmcm9tX3RpbWUYBCABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wEg0KBWFmdGVyGAUgASgJEjAKC2V4cGxhbmF0aW9uGAYgAygLMhsuZHVldGltZS52MS5FeHBsYW5hdGlvblN0ZXAikQIKF0NvbXB1dGVTY2hlZHVsZVJlc3BvbnNlEjAKCWRlYWRsaW5lcxgBIAMoCzIdLmR1ZXRpbWUudjEuU2NoZWR1bGVkRGVhZGxpbmUSEAoIbmV4dF9kdWUYAiABKAkSMQoNbmV4dF9kdWVfdGltZRgDIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXASEQoJdGltZV96b25lGAQgASgJEhEKCXJlY29yZF9pZBgFIAEoCRIYChBjYWxlbmRhcl92ZXJzaW9uGAYgASgJEhUKDXJ1bGVzX3ZlcnNpb24YByABKAkSFgoOdHpkYXRhX3ZlcnNpb24YCCABKAkSEAoId2FybmluZ3MYCSADKAkiJQoQR2V0UmVjb3JkUmVxdWVzdBIRCglyZWNvcmRfaWQYASABKAkiNwoRR2V0UmVjb3JkUmVzcG9uc2USIgoGcmVjb3JkGAEgASgLMhIuZHVldGltZS52MS5SZWNvcmQiuQIKBlJlY29yZBIRCglyZWNvcmRfaWQYASABKAkSDgoGbWV0aG9kGAIgASgJEjAKDHJlY2VpdmVfdGltZRgDIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXASFwoPaWRlbXBvdGVuY3lfa2V5GAQgASgJEhgKEGNhbGVuZGFyX3ZlcnNpb24YBSABKAkSFQoNcnVsZXNfdmVyc2lvbhgGIAEoCRIWCg50emRhdGFfdmVyc2lvbhgHIAEoCRIlCgdyZXF1ZXN0GAggASgLMhQuZ29vZ2xlLnByb3RvYnVmLkFueRImCghyZXNwb25zZRgJIAEoCzIULmdvb2dsZS5wcm90b2J1Zi5BbnkSFgoOY29udGVudF9zaGEyNTYYCiABKAkSEQoJbmFtZXNwYWNlGAsgASgJItMBChJMaXN0UmVjb3Jkc1JlcXVlc3QSLgoKc3RhcnRfdGltZRgBIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXASLAoIZW5kX3RpbWUYAiABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wEhIKCmtleV9wcmVmaXgYAyABKAkSFgoJbmFtZXNwYWNlGAQgASgJSACIAQESEQoJcGFnZV9zaXplGAUgASgFEhIKCnBhZ2VfdG9rZW4YBiABKAlCDAoKX25hbWVzcGFjZSJTChNMaXN0UmVjb3Jkc1Jlc3BvbnNlEiMKB3JlY29yZHMYASADKAsyEi5kdWV0aW1lLnYxLlJlY29yZBIXCg9uZXh0X3BhZ2VfdG9rZW4YAiABKAkiywEKFEFuYWx5emVJbXBhY3RSZXF1ZXN0EhAKCGNhbGVuZGFyGAEgASgJEg4KBnR6ZGF0YRgCIAEoCBINCgVsaW1pdBgDIAEoBRIuCgpzdGFydF90aW1lGAQgASgLMhouZ29vZ2xlLnByb3RvYnVmLlRpbWVzdGFtcBIsCghlbmRfdGltZRgFIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXASFgoJbmFtZXNwYWNlGAYgASgJSACIAQFCDAoKX25hbWVzcGFjZSLuAQoVQW5hbHl6ZUltcGFjdFJlc3BvbnNlEhgKEGNhbGVuZGFyX3ZlcnNpb24YASABKAkSFgoOdHpkYXRhX3ZlcnNpb24YAiABKAkSGAoQcmVjb3Jkc19leGFtaW5lZBgDIAEoAxIYChByZWNvcmRzX3JlcGxheWVkGAQgASgDEisKB2NoYW5nZXMYBSADKAsyGi5kdWV0aW1lLnYxLkltcGFjdGVkUmVjb3JkEi8KDG5vdF9yZXBsYXllZBgGIAMoCzIZLmR1ZXRpbWUudjEuU2tpcHBlZFJlY29yZBIRCgl0cnVuY2F0ZWQYByABKAgipgIKDkltcGFjdGVkUmVjb3JkEhEKCXJlY29yZF9pZBgBIAEoCRIOCgZtZXRob2QYAiABKAkSFwoPaWRlbXBvdGVuY3lfa2V5GAMgASgJEhEKCW5hbWVzcGFjZRgEIAEoCRIcChRvbGRfY2FsZW5kYXJfdmVyc2lvbhgFIAEoCRIcChRuZXdfY2FsZW5kYXJfdmVyc2lvbhgGIAEoCRIaChJvbGRfdHpkYXRhX3ZlcnNpb24YByABKAkSLAoJZHVlX3RpbWVzGAggAygLMhkuZHVldGltZS52MS5EdWVUaW1lQ2hhbmdlEg0KBWVycm9yGAkgASgJEjAKDmFuc3dlcl9jaGFuZ2VzGAogAygLMhguZHVldGltZS52MS5BbnN3ZXJDaGFuZ2UiUwoMQW5zd2VyQ2hhbmdlEgwKBG5hbWUYASABKAkSEQoJb2xkX3ZhbHVlGAIgASgJEhEKCW5ld192YWx1ZRgDIAEoCRIPCgdyZWFzb25zGAQgAygJIsABCg1EdWVUaW1lQ2hhbmdlEgwKBG5hbWUYASABKAkSMAoMb2xkX2R1ZV90aW1lGAIgASgLMhouZ29vZ2xlLnByb3RvYnVmLlRpbWVzdGFtcBIwCgxuZXdfZHVlX3RpbWUYAyABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wEhUKDW9sZF9kdWVfbG9jYWwYBCABKAkSFQoNbmV3X2R1ZV9sb2NhbBgFIAEoCRIPCgdyZWFzb25zGAYgAygJIkIKDVNraXBwZWRSZWNvcmQSEQoJcmVjb3JkX2lkGAEgASgJEg4KBm1ldGhvZBgCIAEoCRIOCgZyZWFzb24YAyABKAkiFgoUTGlzdENhbGVuZGFyc1JlcXVlc3QiRAoVTGlzdENhbGVuZGFyc1Jlc3BvbnNlEisKCWNhbGVuZGFycxgBIAMoCzIYLmR1ZXRpbWUudjEuQ2FsZW5kYXJJbmZvIpUBCgxDYWxlbmRhckluZm8SDAoEbmFtZRgBIAEoCRITCgtkZXNjcmlwdGlvbhgCIAEoCRIRCgl0aW1lX3pvbmUYAyABKAkSFgoObmV3ZXN0X3ZlcnNpb24YBCABKAkSEAoIdmVyc2lvbnMYBSADKAkSEgoKZmlyc3RfeWVhchgGIAEoBRIRCglsYXN0X3llYXIYByABKAUiIgoSR2V0Q2FsZW5kYXJSZXF1ZXN0EgwKBG5hbWUYASABKAkivwEKE0dldENhbGVuZGFyUmVzcG9uc2USJgoEaW5mbxgBIAEoCzIYLmR1ZXRpbWUudjEuQ2FsZW5kYXJJbmZvEiYKCGNhbGVuZGFyGAIgASgLMhQuZHVldGltZS52MS5DYWxlbmRhchIPCgd2ZXJzaW9uGAMgASgJEhgKEGhvbGlkYXlzX3BhY2thZ2UYBCABKAkSFgoOc291cmNlX2NvdW50cnkYBSABKAkSFQoNc291cmNlX3N1YmRpdhgGIAEoCSJjChNMaXN0SG9saWRheXNSZXF1ZXN0EiYKCGNhbGVuZGFyGAEgASgLMhQuZHVldGltZS52MS5DYWxlbmRhchISCgpzdGFydF9kYXRlGAIgASgJEhAKCGVuZF9kYXRlGAMgASgJImkKFExpc3RIb2xpZGF5c1Jlc3BvbnNlEiUKCGhvbGlkYXlzGAEgAygLMhMuZHVldGltZS52MS5Ib2xpZGF5EhgKEGNhbGVuZGFyX3ZlcnNpb24YAiABKAkSEAoId2FybmluZ3MYAyADKAkibwoPUnVubmluZ0ludGVydmFsEi4KCnN0YXJ0X3RpbWUYASABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wEiwKCGVuZF90aW1lGAIgASgLMhouZ29vZ2xlLnByb3RvYnVmLlRpbWVzdGFtcCLLBAoKQ2xvY2tTdGF0ZRIOCgZ0YXJnZXQYASABKAkSKQoHbWVhc3VyZRgCIAEoDjIYLmR1ZXRpbWUudjEuQ2xvY2tNZWFzdXJlEicKBnN0YXR1cxgDIAEoDjIXLmR1ZXRpbWUudjEuQ2xvY2tTdGF0dXMSMQoNZGVhZGxpbmVfdGltZRgEIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXASLAoJcmVtYWluaW5nGAUgASgLMhkuZ29vZ2xlLnByb3RvYnVmLkR1cmF0aW9uEi4KCnN0YXJ0X3RpbWUYBiABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wEjMKD2xhc3RfZXZlbnRfdGltZRgHIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXASNgoScnVubmluZ19zaW5jZV90aW1lGAggASgLMhouZ29vZ2xlLnByb3RvYnVmLlRpbWVzdGFtcBI2ChFydW5uaW5nX2ludGVydmFscxgJIAMoCzIbLmR1ZXRpbWUudjEuUnVubmluZ0ludGVydmFsEi8KC2JyZWFjaF90aW1lGAogASgLMhouZ29vZ2xlLnByb3RvYnVmLlRpbWVzdGFtcBIQCgNtZXQYCyABKAhIAIgBARIWCg5yZWNvbXB1dGF0aW9ucxgMIAEoAxImCghjYWxlbmRhchgNIAEoCzIULmR1ZXRpbWUudjEuQ2FsZW5kYXISGAoQY2FsZW5kYXJfdmVyc2lvbhgOIAEoCUIGCgRfbWV0IpwBCgpDbG9ja0V2ZW50EigKBHR5cGUYASABKA4yGi5kdWV0aW1lLnYxLkNsb2NrRXZlbnRUeXBlEigKBHRpbWUYAiABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wEg4KBnRhcmdldBgDIAEoCRIqCgZhbmNob3IYBCABKA4yGi5kdWV0aW1lLnYxLlJldGFyZ2V0QW5jaG9yIrABChFTdGFydENsb2NrUmVxdWVzdBIOCgZ0YXJnZXQYASABKAkSJgoIY2FsZW5kYXIYAiABKAsyFC5kdWV0aW1lLnYxLkNhbGVuZGFyEi4KCnN0YXJ0X3RpbWUYAyABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wEhcKD2lkZW1wb3RlbmN5X2tleRgEIAEoCRIaChJ3YXJuaW5nX3RocmVzaG9sZHMYBSADKAkilwIKElN0YXJ0Q2xvY2tSZXNwb25zZRIlCgVzdGF0ZRgBIAEoCzIWLmR1ZXRpbWUudjEuQ2xvY2tTdGF0ZRIRCgl0aW1lX3pvbmUYAiABKAkSEQoJcmVjb3JkX2lkGAMgASgJEhgKEGNhbGVuZGFyX3ZlcnNpb24YBCABKAkSFQoNcnVsZXNfdmVyc2lvbhgFIAEoCRIWCg50emRhdGFfdmVyc2lvbhgGIAEoCRIQCgh3YXJuaW5ncxgHIAMoCRIuCgtuZXh0X2FjdGlvbhgIIAEoCzIZLmR1ZXRpbWUudjEuU2xhTmV4dEFjdGlvbhIpCg1mZWxsX2F0X2V2ZW50GAkgAygLMhIuZHVldGltZS52MS5TbGFEdWUimwEKFkFwcGx5Q2xvY2tFdmVudFJlcXVlc3QSJQoFc3RhdGUYASABKAsyFi5kdWV0aW1lLnYxLkNsb2NrU3RhdGUSJQoFZXZlbnQYAiABKAsyFi5kdWV0aW1lLnYxLkNsb2NrRXZlbnQSFwoPaWRlbXBvdGVuY3lfa2V5GAMgASgJEhoKEndhcm5pbmdfdGhyZXNob2xkcxgEIAMoCSKcAgoXQXBwbHlDbG9ja0V2ZW50UmVzcG9uc2USJQoFc3RhdGUYASABKAsyFi5kdWV0aW1lLnYxLkNsb2NrU3RhdGUSEQoJdGltZV96b25lGAIgASgJEhEKCXJlY29yZF9pZBgDIAEoCRIYChBjYWxlbmRhcl92ZXJzaW9uGAQgASgJEhUKDXJ1bGVzX3ZlcnNpb24YBSABKAkSFgoOdHpkYXRhX3ZlcnNpb24YBiABKAkSEAoId2FybmluZ3MYByADKAkSLgoLbmV4dF9hY3Rpb24YCCABKAsyGS5kdWV0aW1lLnYxLlNsYU5leHRBY3Rpb24SKQoNZmVsbF9hdF9ldmVudBgJIAMoCzISLmR1ZXRpbWUudjEuU2xhRHVlIrkBCg1CdXNpbmVzc0V2ZW50EgwKBHR5cGUYASABKAkSKAoEdGltZRgCIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXASPQoKYXR0cmlidXRlcxgDIAMoCzIpLmR1ZXRpbWUudjEuQnVzaW5lc3NFdmVudC5BdHRyaWJ1dGVzRW50cnkaMQoPQXR0cmlidXRlc0VudHJ5EgsKA2tleRgBIAEoCRINCgV2YWx1ZRgCIAEoCToCOAEimAEKEkV2YWx1YXRlU2xhUmVxdWVzdBIOCgZwb2xpY3kYASABKAkSKQoGZXZlbnRzGAIgAygLMhkuZHVldGltZS52MS5CdXNpbmVzc0V2ZW50EhcKD2lkZW1wb3RlbmN5X2tleRgDIAEoCRIuCgphc19vZl90aW1lGAQgASgLMhouZ29vZ2xlLnByb3RvYnVmLlRpbWVzdGFtcCLOAgoNVGltZWxpbmVFbnRyeRINCgVldmVudBgBIAEoCRIoCgR0aW1lGAIgASgLMhouZ29vZ2xlLnByb3RvYnVmLlRpbWVzdGFtcBIOCgZhY3Rpb24YAyABKAkSDAoEdGllchgEIAEoCRInCgZzdGF0dXMYBSABKA4yFy5kdWV0aW1lLnYxLkNsb2NrU3RhdHVzEjUKEW9sZF9kZWFkbGluZV90aW1lGAYgASgLMhouZ29vZ2xlLnByb3RvYnVmLlRpbWVzdGFtcBI1ChFuZXdfZGVhZGxpbmVfdGltZRgHIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXASLAoJcmVtYWluaW5nGAggASgLMhkuZ29vZ2xlLnByb3RvYnVmLkR1cmF0aW9uEg4KBnJlYXNvbhgJIAEoCRIRCgl0aHJlc2hvbGQYCiABKAkimAMKE0V2YWx1YXRlU2xhUmVzcG9uc2USJQoFc3RhdGUYASABKAsyFi5kdWV0aW1lLnYxLkNsb2NrU3RhdGUSDAoEdGllchgCIAEoCRIWCg5wb2xpY3lfdmVyc2lvbhgDIAEoCRIrCgh0aW1lbGluZRgEIAMoCzIZLmR1ZXRpbWUudjEuVGltZWxpbmVFbnRyeRIRCgl0aW1lX3pvbmUYBSABKAkSEQoJcmVjb3JkX2lkGAYgASgJEhgKEGNhbGVuZGFyX3ZlcnNpb24YByABKAkSFQoNcnVsZXNfdmVyc2lvbhgIIAEoCRIWCg50emRhdGFfdmVyc2lvbhgJIAEoCRIQCgh3YXJuaW5ncxgKIAMoCRImCgdtZXRyaWNzGAsgAygLMhUuZHVldGltZS52MS5TbGFNZXRyaWMSLgoLbmV4dF9hY3Rpb24YDCABKAsyGS5kdWV0aW1lLnYxLlNsYU5leHRBY3Rpb24SLgoKYXNfb2ZfdGltZRgNIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXAi6QEKCVNsYU1ldHJpYxIMCgRuYW1lGAEgASgJEisKBnN0YXR1cxgCIAEoDjIbLmR1ZXRpbWUudjEuU2xhTWV0cmljU3RhdHVzEg4KBmN5Y2xlcxgDIAEoBRIMCgR0aWVyGAQgASgJEiUKBXN0YXRlGAUgASgLMhYuZHVldGltZS52MS5DbG9ja1N0YXRlEisKCHRpbWVsaW5lGAYgAygLMhkuZHVldGltZS52MS5UaW1lbGluZUVudHJ5Ei8KC2JyZWFjaF90aW1lGAcgASgLMhouZ29vZ2xlLnByb3RvYnVmLlRpbWVzdGFtcCJRCgZTbGFEdWUSDgoGbWV0cmljGAEgASgJEiQKBGtpbmQYAiABKA4yFi5kdWV0aW1lLnYxLlNsYUR1ZUtpbmQSEQoJdGhyZXNob2xkGAMgASgJIloKDVNsYU5leHRBY3Rpb24SKAoEdGltZRgBIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXASHwoDZHVlGAIgAygLMhIuZHVldGltZS52MS5TbGFEdWUiFQoTTGlzdFBvbGljaWVzUmVxdWVzdCJAChRMaXN0UG9saWNpZXNSZXNwb25zZRIoCghwb2xpY2llcxgBIAMoCzIWLmR1ZXRpbWUudjEuUG9saWN5SW5mbyJZCgpQb2xpY3lJbmZvEgwKBG5hbWUYASABKAkSEwoLZGVzY3JpcHRpb24YAiABKAkSFgoObmV3ZXN0X3ZlcnNpb24YAyABKAkSEAoIdmVyc2lvbnMYBCADKAkiIAoQR2V0UG9saWN5UmVxdWVzdBIMCgRuYW1lGAEgASgJIoIBCgpQb2xpY3lUaWVyEgwKBG5hbWUYASABKAkSDgoGdGFyZ2V0GAIgASgJEikKB21lYXN1cmUYAyABKA4yGC5kdWV0aW1lLnYxLkNsb2NrTWVhc3VyZRIYChBjYWxlbmRhcl92ZXJzaW9uGAQgASgJEhEKCXRpbWVfem9uZRgFIAEoCSJrCgtQb2xpY3lFdmVudBIMCgRuYW1lGAEgASgJEhQKDHdoZW5fcnVubmluZxgCIAEoCRITCgt3aGVuX3BhdXNlZBgDIAEoCRIOCgZhbmNob3IYBCABKAkSEwoLZGVzY3JpcHRpb24YBSABKAki2wEKEUdldFBvbGljeVJlc3BvbnNlEiQKBGluZm8YASABKAsyFi5kdWV0aW1lLnYxLlBvbGljeUluZm8SDwoHdmVyc2lvbhgCIAEoCRIUCgxpbml0aWFsX3RpZXIYAyABKAkSJQoFdGllcnMYBCADKAsyFi5kdWV0aW1lLnYxLlBvbGljeVRpZXISJwoGZXZlbnRzGAUgAygLMhcuZHVldGltZS52MS5Qb2xpY3lFdmVudBIpCgdtZXRyaWNzGAYgAygLMhguZHVldGltZS52MS5Qb2xpY3lNZXRyaWMihAEKDFBvbGljeU1ldHJpYxIMCgRuYW1lGAEgASgJEicKB3RhcmdldHMYAiADKAsyFi5kdWV0aW1lLnYxLlBvbGljeVRpZXISKwoFcnVsZXMYAyADKAsyHC5kdWV0aW1lLnYxLlBvbGljeU1ldHJpY1J1bGUSEAoId2FybmluZ3MYBCADKAkiUQoQUG9saWN5TWV0cmljUnVsZRINCgVldmVudBgBIAEoCRIOCgZzdGF0dXMYAiABKAkSDgoGYWN0aW9uGAMgASgJEg4KBmFuY2hvchgEIAEoCSLeAQoWTGlzdE9wZW5QZXJpb2RzUmVxdWVzdBIuCgpzdGFydF90aW1lGAEgASgLMhouZ29vZ2xlLnByb3RvYnVmLlRpbWVzdGFtcBIsCghlbmRfdGltZRgCIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXASJgoIY2FsZW5kYXIYAyABKAsyFC5kdWV0aW1lLnYxLkNhbGVuZGFyEhEKCXBhZ2Vfc2l6ZRgEIAEoBRISCgpwYWdlX3Rva2VuGAUgASgJEhcKD2lkZW1wb3RlbmN5X2tleRgGIAEoCSKmAQoKT3BlblBlcmlvZBIuCgpzdGFydF90aW1lGAEgASgLMhouZ29vZ2xlLnByb3RvYnVmLlRpbWVzdGFtcBIsCghlbmRfdGltZRgCIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXASEgoKbG9jYWxfZGF0ZRgDIAEoCRITCgtzdGFydF9sb2NhbBgEIAEoCRIRCgllbmRfbG9jYWwYBSABKAki3AEKF0xpc3RPcGVuUGVyaW9kc1Jlc3BvbnNlEicKB3BlcmlvZHMYASADKAsyFi5kdWV0aW1lLnYxLk9wZW5QZXJpb2QSFwoPbmV4dF9wYWdlX3Rva2VuGAIgASgJEhEKCXRpbWVfem9uZRgDIAEoCRIRCglyZWNvcmRfaWQYBCABKAkSGAoQY2FsZW5kYXJfdmVyc2lvbhgFIAEoCRIVCg1ydWxlc192ZXJzaW9uGAYgASgJEhYKDnR6ZGF0YV92ZXJzaW9uGAcgASgJEhAKCHdhcm5pbmdzGAggAygJIn8KGENvdW50QnVzaW5lc3NEYXlzUmVxdWVzdBIRCglmcm9tX2RhdGUYASABKAkSDwoHdG9fZGF0ZRgCIAEoCRImCghjYWxlbmRhchgDIAEoCzIULmR1ZXRpbWUudjEuQ2FsZW5kYXISFwoPaWRlbXBvdGVuY3lfa2V5GAQgASgJIrMBChlDb3VudEJ1c2luZXNzRGF5c1Jlc3BvbnNlEhUKDWJ1c2luZXNzX2RheXMYASABKAMSEQoJdGltZV96b25lGAIgASgJEhEKCXJlY29yZF9pZBgDIAEoCRIYChBjYWxlbmRhcl92ZXJzaW9uGAQgASgJEhUKDXJ1bGVzX3ZlcnNpb24YBSABKAkSFgoOdHpkYXRhX3ZlcnNpb24YBiABKAkSEAoId2FybmluZ3MYByADKAkqtgEKB1dlZWtkYXkSFwoTV0VFS0RBWV9VTlNQRUNJRklFRBAAEhIKDldFRUtEQVlfTU9OREFZEAESEwoPV0VFS0RBWV9UVUVTREFZEAISFQoRV0VFS0RBWV9XRURORVNEQVkQAxIUChBXRUVLREFZX1RIVVJTREFZEAQSEgoOV0VFS0RBWV9GUklEQVkQBRIUChBXRUVLREFZX1NBVFVSREFZEAYSEgoOV0VFS0RBWV9TVU5EQVkQBypXCgdBdENsb3NlEhgKFEFUX0NMT1NFX1VOU1BFQ0lGSUVEEAASGgoWQVRfQ0xPU0VfRU5EX09GX1dJTkRPVxABEhYKEkFUX0NMT1NFX05FWFRfT1BFThACKn4KBFJvbGwSFAoQUk9MTF9VTlNQRUNJRklFRBAAEhIKDlJPTExfRk9MTE9XSU5HEAESEgoOUk9MTF9QUkVDRURJTkcQAhIbChdST0xMX01PRElGSUVEX0ZPTExPV0lORxADEhsKF1JPTExfTU9ESUZJRURfUFJFQ0VESU5HEAQqiQEKDENsb2NrTWVhc3VyZRIdChlDTE9DS19NRUFTVVJFX1VOU1BFQ0lGSUVEEAASGQoVQ0xPQ0tfTUVBU1VSRV9FTEFQU0VEEAESHgoaQ0xPQ0tfTUVBU1VSRV9CVVNJTkVTU19EQVkQAhIfChtDTE9DS19NRUFTVVJFX0JVU0lORVNTX1RJTUUQAyp4CgtDbG9ja1N0YXR1cxIcChhDTE9DS19TVEFUVVNfVU5TUEVDSUZJRUQQABIYChRDTE9DS19TVEFUVVNfUlVOTklORxABEhcKE0NMT0NLX1NUQVRVU19QQVVTRUQQAhIYChRDTE9DS19TVEFUVVNfU1RPUFBFRBADKsEBCg5DbG9ja0V2ZW50VHlwZRIgChxDTE9DS19FVkVOVF9UWVBFX1VOU1BFQ0lGSUVEEAASGgoWQ0xPQ0tfRVZFTlRfVFlQRV9QQVVTRRABEhsKF0NMT0NLX0VWRU5UX1RZUEVfUkVTVU1FEAISGgoWQ0xPQ0tfRVZFTlRfVFlQRV9SRVNFVBADEh0KGUNMT0NLX0VWRU5UX1RZUEVfUkVUQVJHRVQQBBIZChVDTE9DS19FVkVOVF9UWVBFX1NUT1AQBSpnCg5SZXRhcmdldEFuY2hvchIfChtSRVRBUkdFVF9BTkNIT1JfVU5TUEVDSUZJRUQQABIZChVSRVRBUkdFVF9BTkNIT1JfRVZFTlQQARIZChVSRVRBUkdFVF9BTkNIT1JfU1RBUlQQAiqzAQoPU2xhTWV0cmljU3RhdHVzEiEKHVNMQV9NRVRSSUNfU1RBVFVTX1VOU1BFQ0lGSUVEEAASIQodU0xBX01FVFJJQ19TVEFUVVNfTk9UX1NUQVJURUQQARIdChlTTEFfTUVUUklDX1NUQVRVU19SVU5OSU5HEAISHAoYU0xBX01FVFJJQ19TVEFUVVNfUEFVU0VEEAMSHQoZU0xBX01FVFJJQ19TVEFUVVNfU1RPUFBFRBAEKl0KClNsYUR1ZUtpbmQSHAoYU0xBX0RVRV9LSU5EX1VOU1BFQ0lGSUVEEAASGAoUU0xBX0RVRV9LSU5EX1dBUk5JTkcQARIXChNTTEFfRFVFX0tJTkRfQlJFQUNIEAIysw0KDkR1ZVRpbWVTZXJ2aWNlEngKDkNvbXB1dGVEdWVUaW1lEiEuZHVldGltZS52MS5Db21wdXRlRHVlVGltZVJlcXVlc3QaIi5kdWV0aW1lLnYxLkNvbXB1dGVEdWVUaW1lUmVzcG9uc2UiH4LT5JMCGToBKiIUL3YxL2R1ZVRpbWVzOmNvbXB1dGUSjwEKFEJhdGNoQ29tcHV0ZUR1ZVRpbWVzEicuZHVldGltZS52MS5CYXRjaENvbXB1dGVEdWVUaW1lc1JlcXVlc3QaKC5kdWV0aW1lLnYxLkJhdGNoQ29tcHV0ZUR1ZVRpbWVzUmVzcG9uc2UiJILT5JMCHjoBKiIZL3YxL2R1ZVRpbWVzOmJhdGNoQ29tcHV0ZRJwChVTdHJlYW1Db21wdXRlRHVlVGltZXMSKC5kdWV0aW1lLnYxLlN0cmVhbUNvbXB1dGVEdWVUaW1lc1JlcXVlc3QaKS5kdWV0aW1lLnYxLlN0cmVhbUNvbXB1dGVEdWVUaW1lc1Jlc3BvbnNlKAEwARKLAQoTQ29tcHV0ZUJ1c2luZXNzVGltZRImLmR1ZXRpbWUudjEuQ29tcHV0ZUJ1c2luZXNzVGltZVJlcXVlc3QaJy5kdWV0aW1lLnYxLkNvbXB1dGVCdXNpbmVzc1RpbWVSZXNwb25zZSIjgtPkkwIdOgEqIhgvdjEvYnVzaW5lc3NUaW1lOmNvbXB1dGUScwoNR2V0T3BlblN0YXR1cxIgLmR1ZXRpbWUudjEuR2V0T3BlblN0YXR1c1JlcXVlc3QaIS5kdWV0aW1lLnYxLkdldE9wZW5TdGF0dXNSZXNwb25zZSIdgtPkkwIXOgEqIhIvdjEvb3BlblN0YXR1czpnZXQSfAoPQ29tcHV0ZVNjaGVkdWxlEiIuZHVldGltZS52MS5Db21wdXRlU2NoZWR1bGVSZXF1ZXN0GiMuZHVldGltZS52MS5Db21wdXRlU2NoZWR1bGVSZXNwb25zZSIggtPkkwIaOgEqIhUvdjEvc2NoZWR1bGVzOmNvbXB1dGUSaQoJR2V0UmVjb3JkEhwuZHVldGltZS52MS5HZXRSZWNvcmRSZXF1ZXN0Gh0uZHVldGltZS52MS5HZXRSZWNvcmRSZXNwb25zZSIfgtPkkwIZEhcvdjEvcmVjb3Jkcy97cmVjb3JkX2lkfRJjCgtMaXN0UmVjb3JkcxIeLmR1ZXRpbWUudjEuTGlzdFJlY29yZHNSZXF1ZXN0Gh8uZHVldGltZS52MS5MaXN0UmVjb3Jkc1Jlc3BvbnNlIhOC0+STAg0SCy92MS9yZWNvcmRzEnoKDUFuYWx5emVJbXBhY3QSIC5kdWV0aW1lLnYxLkFuYWx5emVJbXBhY3RSZXF1ZXN0GiEuZHVldGltZS52MS5BbmFseXplSW1wYWN0UmVzcG9uc2UiJILT5JMCHjoBKiIZL3YxL3JlY29yZHM6YW5hbHl6ZUltcGFjdBJoCgpTdGFydENsb2NrEh0uZHVldGltZS52MS5TdGFydENsb2NrUmVxdWVzdBoeLmR1ZXRpbWUudjEuU3RhcnRDbG9ja1Jlc3BvbnNlIhuC0+STAhU6ASoiEC92MS9jbG9ja3M6c3RhcnQSfAoPQXBwbHlDbG9ja0V2ZW50EiIuZHVldGltZS52MS5BcHBseUNsb2NrRXZlbnRSZXF1ZXN0GiMuZHVldGltZS52MS5BcHBseUNsb2NrRXZlbnRSZXNwb25zZSIggtPkkwIaOgEqIhUvdjEvY2xvY2tzOmFwcGx5RXZlbnQSawoLRXZhbHVhdGVTbGESHi5kdWV0aW1lLnYxLkV2YWx1YXRlU2xhUmVxdWVzdBofLmR1ZXRpbWUudjEuRXZhbHVhdGVTbGFSZXNwb25zZSIbgtPkkwIVOgEqIhAvdjEvc2xhOmV2YWx1YXRlEnsKD0xpc3RPcGVuUGVyaW9kcxIiLmR1ZXRpbWUudjEuTGlzdE9wZW5QZXJpb2RzUmVxdWVzdBojLmR1ZXRpbWUudjEuTGlzdE9wZW5QZXJpb2RzUmVzcG9uc2UiH4LT5JMCGToBKiIUL3YxL29wZW5QZXJpb2RzOmxpc3QSgwEKEUNvdW50QnVzaW5lc3NEYXlzEiQuZHVldGltZS52MS5Db3VudEJ1c2luZXNzRGF5c1JlcXVlc3QaJS5kdWV0aW1lLnYxLkNvdW50QnVzaW5lc3NEYXlzUmVzcG9uc2UiIYLT5JMCGzoBKiIWL3YxL2J1c2luZXNzRGF5czpjb3VudDKtBAoPQ2FsZW5kYXJTZXJ2aWNlEmsKDUxpc3RDYWxlbmRhcnMSIC5kdWV0aW1lLnYxLkxpc3RDYWxlbmRhcnNSZXF1ZXN0GiEuZHVldGltZS52MS5MaXN0Q2FsZW5kYXJzUmVzcG9uc2UiFYLT5JMCDxINL3YxL2NhbGVuZGFycxJsCgtHZXRDYWxlbmRhchIeLmR1ZXRpbWUudjEuR2V0Q2FsZW5kYXJSZXF1ZXN0Gh8uZHVldGltZS52MS5HZXRDYWxlbmRhclJlc3BvbnNlIhyC0+STAhYSFC92MS9jYWxlbmRhcnMve25hbWV9Em8KDExpc3RIb2xpZGF5cxIfLmR1ZXRpbWUudjEuTGlzdEhvbGlkYXlzUmVxdWVzdBogLmR1ZXRpbWUudjEuTGlzdEhvbGlkYXlzUmVzcG9uc2UiHILT5JMCFjoBKiIRL3YxL2hvbGlkYXlzOmxpc3QSZwoMTGlzdFBvbGljaWVzEh8uZHVldGltZS52MS5MaXN0UG9saWNpZXNSZXF1ZXN0GiAuZHVldGltZS52MS5MaXN0UG9saWNpZXNSZXNwb25zZSIUgtPkkwIOEgwvdjEvcG9saWNpZXMSZQoJR2V0UG9saWN5EhwuZHVldGltZS52MS5HZXRQb2xpY3lSZXF1ZXN0Gh0uZHVldGltZS52MS5HZXRQb2xpY3lSZXNwb25zZSIbgtPkkwIVEhMvdjEvcG9saWNpZXMve25hbWV9YgZwcm90bzM", [file_google_api_annotations, file_google_protobuf_any, file_google_protobuf_duration, file_google_protobuf_timestamp, file_google_rpc_status]);
/**
 * Describes the message duetime.v1.Calendar.
 * Use `create(CalendarSchema)` to create a new message.
 */
export const CalendarSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 0);
/**
 * Describes the message duetime.v1.WeekPeriod.
 * Use `create(WeekPeriodSchema)` to create a new message.
 */
export const WeekPeriodSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 1);
/**
 * Describes the message duetime.v1.DateOverride.
 * Use `create(DateOverrideSchema)` to create a new message.
 */
export const DateOverrideSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 2);
/**
 * Describes the message duetime.v1.ExtraWorkingDay.
 * Use `create(ExtraWorkingDaySchema)` to create a new message.
 */
export const ExtraWorkingDaySchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 3);
/**
 * Describes the message duetime.v1.ExplanationStep.
 * Use `create(ExplanationStepSchema)` to create a new message.
 */
export const ExplanationStepSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 4);
/**
 * Describes the message duetime.v1.Holiday.
 * Use `create(HolidaySchema)` to create a new message.
 */
export const HolidaySchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 5);
/**
 * Describes the message duetime.v1.WeekendDays.
 * Use `create(WeekendDaysSchema)` to create a new message.
 */
export const WeekendDaysSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 6);
/**
 * Describes the message duetime.v1.WorkingHours.
 * Use `create(WorkingHoursSchema)` to create a new message.
 */
export const WorkingHoursSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 7);
/**
 * Describes the message duetime.v1.DayHours.
 * Use `create(DayHoursSchema)` to create a new message.
 */
export const DayHoursSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 8);
/**
 * Describes the message duetime.v1.TimeInterval.
 * Use `create(TimeIntervalSchema)` to create a new message.
 */
export const TimeIntervalSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 9);
/**
 * Describes the message duetime.v1.ComputeDueTimeRequest.
 * Use `create(ComputeDueTimeRequestSchema)` to create a new message.
 */
export const ComputeDueTimeRequestSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 10);
/**
 * Describes the message duetime.v1.ComputeDueTimeResponse.
 * Use `create(ComputeDueTimeResponseSchema)` to create a new message.
 */
export const ComputeDueTimeResponseSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 11);
/**
 * Describes the message duetime.v1.BatchComputeDueTimesRequest.
 * Use `create(BatchComputeDueTimesRequestSchema)` to create a new message.
 */
export const BatchComputeDueTimesRequestSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 12);
/**
 * Describes the message duetime.v1.BatchComputeDueTimesResponse.
 * Use `create(BatchComputeDueTimesResponseSchema)` to create a new message.
 */
export const BatchComputeDueTimesResponseSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 13);
/**
 * Describes the message duetime.v1.BatchItemResult.
 * Use `create(BatchItemResultSchema)` to create a new message.
 */
export const BatchItemResultSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 14);
/**
 * Describes the message duetime.v1.StreamComputeDueTimesRequest.
 * Use `create(StreamComputeDueTimesRequestSchema)` to create a new message.
 */
export const StreamComputeDueTimesRequestSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 15);
/**
 * Describes the message duetime.v1.StreamComputeDueTimesResponse.
 * Use `create(StreamComputeDueTimesResponseSchema)` to create a new message.
 */
export const StreamComputeDueTimesResponseSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 16);
/**
 * Describes the message duetime.v1.ComputeBusinessTimeRequest.
 * Use `create(ComputeBusinessTimeRequestSchema)` to create a new message.
 */
export const ComputeBusinessTimeRequestSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 17);
/**
 * Describes the message duetime.v1.ComputeBusinessTimeResponse.
 * Use `create(ComputeBusinessTimeResponseSchema)` to create a new message.
 */
export const ComputeBusinessTimeResponseSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 18);
/**
 * Describes the message duetime.v1.GetOpenStatusRequest.
 * Use `create(GetOpenStatusRequestSchema)` to create a new message.
 */
export const GetOpenStatusRequestSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 19);
/**
 * Describes the message duetime.v1.OpenInterval.
 * Use `create(OpenIntervalSchema)` to create a new message.
 */
export const OpenIntervalSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 20);
/**
 * Describes the message duetime.v1.GetOpenStatusResponse.
 * Use `create(GetOpenStatusResponseSchema)` to create a new message.
 */
export const GetOpenStatusResponseSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 21);
/**
 * Describes the message duetime.v1.DeadlineSpec.
 * Use `create(DeadlineSpecSchema)` to create a new message.
 */
export const DeadlineSpecSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 22);
/**
 * Describes the message duetime.v1.ComputeScheduleRequest.
 * Use `create(ComputeScheduleRequestSchema)` to create a new message.
 */
export const ComputeScheduleRequestSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 23);
/**
 * Describes the message duetime.v1.ScheduledDeadline.
 * Use `create(ScheduledDeadlineSchema)` to create a new message.
 */
export const ScheduledDeadlineSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 24);
/**
 * Describes the message duetime.v1.ComputeScheduleResponse.
 * Use `create(ComputeScheduleResponseSchema)` to create a new message.
 */
export const ComputeScheduleResponseSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 25);
/**
 * Describes the message duetime.v1.GetRecordRequest.
 * Use `create(GetRecordRequestSchema)` to create a new message.
 */
export const GetRecordRequestSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 26);
/**
 * Describes the message duetime.v1.GetRecordResponse.
 * Use `create(GetRecordResponseSchema)` to create a new message.
 */
export const GetRecordResponseSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 27);
/**
 * Describes the message duetime.v1.Record.
 * Use `create(RecordSchema)` to create a new message.
 */
export const RecordSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 28);
/**
 * Describes the message duetime.v1.ListRecordsRequest.
 * Use `create(ListRecordsRequestSchema)` to create a new message.
 */
export const ListRecordsRequestSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 29);
/**
 * Describes the message duetime.v1.ListRecordsResponse.
 * Use `create(ListRecordsResponseSchema)` to create a new message.
 */
export const ListRecordsResponseSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 30);
/**
 * Describes the message duetime.v1.AnalyzeImpactRequest.
 * Use `create(AnalyzeImpactRequestSchema)` to create a new message.
 */
export const AnalyzeImpactRequestSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 31);
/**
 * Describes the message duetime.v1.AnalyzeImpactResponse.
 * Use `create(AnalyzeImpactResponseSchema)` to create a new message.
 */
export const AnalyzeImpactResponseSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 32);
/**
 * Describes the message duetime.v1.ImpactedRecord.
 * Use `create(ImpactedRecordSchema)` to create a new message.
 */
export const ImpactedRecordSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 33);
/**
 * Describes the message duetime.v1.AnswerChange.
 * Use `create(AnswerChangeSchema)` to create a new message.
 */
export const AnswerChangeSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 34);
/**
 * Describes the message duetime.v1.DueTimeChange.
 * Use `create(DueTimeChangeSchema)` to create a new message.
 */
export const DueTimeChangeSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 35);
/**
 * Describes the message duetime.v1.SkippedRecord.
 * Use `create(SkippedRecordSchema)` to create a new message.
 */
export const SkippedRecordSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 36);
/**
 * Describes the message duetime.v1.ListCalendarsRequest.
 * Use `create(ListCalendarsRequestSchema)` to create a new message.
 */
export const ListCalendarsRequestSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 37);
/**
 * Describes the message duetime.v1.ListCalendarsResponse.
 * Use `create(ListCalendarsResponseSchema)` to create a new message.
 */
export const ListCalendarsResponseSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 38);
/**
 * Describes the message duetime.v1.CalendarInfo.
 * Use `create(CalendarInfoSchema)` to create a new message.
 */
export const CalendarInfoSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 39);
/**
 * Describes the message duetime.v1.GetCalendarRequest.
 * Use `create(GetCalendarRequestSchema)` to create a new message.
 */
export const GetCalendarRequestSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 40);
/**
 * Describes the message duetime.v1.GetCalendarResponse.
 * Use `create(GetCalendarResponseSchema)` to create a new message.
 */
export const GetCalendarResponseSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 41);
/**
 * Describes the message duetime.v1.ListHolidaysRequest.
 * Use `create(ListHolidaysRequestSchema)` to create a new message.
 */
export const ListHolidaysRequestSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 42);
/**
 * Describes the message duetime.v1.ListHolidaysResponse.
 * Use `create(ListHolidaysResponseSchema)` to create a new message.
 */
export const ListHolidaysResponseSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 43);
/**
 * Describes the message duetime.v1.RunningInterval.
 * Use `create(RunningIntervalSchema)` to create a new message.
 */
export const RunningIntervalSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 44);
/**
 * Describes the message duetime.v1.ClockState.
 * Use `create(ClockStateSchema)` to create a new message.
 */
export const ClockStateSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 45);
/**
 * Describes the message duetime.v1.ClockEvent.
 * Use `create(ClockEventSchema)` to create a new message.
 */
export const ClockEventSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 46);
/**
 * Describes the message duetime.v1.StartClockRequest.
 * Use `create(StartClockRequestSchema)` to create a new message.
 */
export const StartClockRequestSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 47);
/**
 * Describes the message duetime.v1.StartClockResponse.
 * Use `create(StartClockResponseSchema)` to create a new message.
 */
export const StartClockResponseSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 48);
/**
 * Describes the message duetime.v1.ApplyClockEventRequest.
 * Use `create(ApplyClockEventRequestSchema)` to create a new message.
 */
export const ApplyClockEventRequestSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 49);
/**
 * Describes the message duetime.v1.ApplyClockEventResponse.
 * Use `create(ApplyClockEventResponseSchema)` to create a new message.
 */
export const ApplyClockEventResponseSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 50);
/**
 * Describes the message duetime.v1.BusinessEvent.
 * Use `create(BusinessEventSchema)` to create a new message.
 */
export const BusinessEventSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 51);
/**
 * Describes the message duetime.v1.EvaluateSlaRequest.
 * Use `create(EvaluateSlaRequestSchema)` to create a new message.
 */
export const EvaluateSlaRequestSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 52);
/**
 * Describes the message duetime.v1.TimelineEntry.
 * Use `create(TimelineEntrySchema)` to create a new message.
 */
export const TimelineEntrySchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 53);
/**
 * Describes the message duetime.v1.EvaluateSlaResponse.
 * Use `create(EvaluateSlaResponseSchema)` to create a new message.
 */
export const EvaluateSlaResponseSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 54);
/**
 * Describes the message duetime.v1.SlaMetric.
 * Use `create(SlaMetricSchema)` to create a new message.
 */
export const SlaMetricSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 55);
/**
 * Describes the message duetime.v1.SlaDue.
 * Use `create(SlaDueSchema)` to create a new message.
 */
export const SlaDueSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 56);
/**
 * Describes the message duetime.v1.SlaNextAction.
 * Use `create(SlaNextActionSchema)` to create a new message.
 */
export const SlaNextActionSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 57);
/**
 * Describes the message duetime.v1.ListPoliciesRequest.
 * Use `create(ListPoliciesRequestSchema)` to create a new message.
 */
export const ListPoliciesRequestSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 58);
/**
 * Describes the message duetime.v1.ListPoliciesResponse.
 * Use `create(ListPoliciesResponseSchema)` to create a new message.
 */
export const ListPoliciesResponseSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 59);
/**
 * Describes the message duetime.v1.PolicyInfo.
 * Use `create(PolicyInfoSchema)` to create a new message.
 */
export const PolicyInfoSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 60);
/**
 * Describes the message duetime.v1.GetPolicyRequest.
 * Use `create(GetPolicyRequestSchema)` to create a new message.
 */
export const GetPolicyRequestSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 61);
/**
 * Describes the message duetime.v1.PolicyTier.
 * Use `create(PolicyTierSchema)` to create a new message.
 */
export const PolicyTierSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 62);
/**
 * Describes the message duetime.v1.PolicyEvent.
 * Use `create(PolicyEventSchema)` to create a new message.
 */
export const PolicyEventSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 63);
/**
 * Describes the message duetime.v1.GetPolicyResponse.
 * Use `create(GetPolicyResponseSchema)` to create a new message.
 */
export const GetPolicyResponseSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 64);
/**
 * Describes the message duetime.v1.PolicyMetric.
 * Use `create(PolicyMetricSchema)` to create a new message.
 */
export const PolicyMetricSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 65);
/**
 * Describes the message duetime.v1.PolicyMetricRule.
 * Use `create(PolicyMetricRuleSchema)` to create a new message.
 */
export const PolicyMetricRuleSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 66);
/**
 * Describes the message duetime.v1.ListOpenPeriodsRequest.
 * Use `create(ListOpenPeriodsRequestSchema)` to create a new message.
 */
export const ListOpenPeriodsRequestSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 67);
/**
 * Describes the message duetime.v1.OpenPeriod.
 * Use `create(OpenPeriodSchema)` to create a new message.
 */
export const OpenPeriodSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 68);
/**
 * Describes the message duetime.v1.ListOpenPeriodsResponse.
 * Use `create(ListOpenPeriodsResponseSchema)` to create a new message.
 */
export const ListOpenPeriodsResponseSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 69);
/**
 * Describes the message duetime.v1.CountBusinessDaysRequest.
 * Use `create(CountBusinessDaysRequestSchema)` to create a new message.
 */
export const CountBusinessDaysRequestSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 70);
/**
 * Describes the message duetime.v1.CountBusinessDaysResponse.
 * Use `create(CountBusinessDaysResponseSchema)` to create a new message.
 */
export const CountBusinessDaysResponseSchema = /*@__PURE__*/ messageDesc(file_duetime_v1_duetime, 71);
/**
 * Weekday is an ISO 8601 weekday (Monday = 1 … Sunday = 7).
 *
 * @generated from enum duetime.v1.Weekday
 */
export var Weekday;
(function (Weekday) {
    /**
     * Not a weekday; rejected wherever a weekday is required.
     *
     * @generated from enum value: WEEKDAY_UNSPECIFIED = 0;
     */
    Weekday[Weekday["UNSPECIFIED"] = 0] = "UNSPECIFIED";
    /**
     * Monday (ISO 1).
     *
     * @generated from enum value: WEEKDAY_MONDAY = 1;
     */
    Weekday[Weekday["MONDAY"] = 1] = "MONDAY";
    /**
     * Tuesday (ISO 2).
     *
     * @generated from enum value: WEEKDAY_TUESDAY = 2;
     */
    Weekday[Weekday["TUESDAY"] = 2] = "TUESDAY";
    /**
     * Wednesday (ISO 3).
     *
     * @generated from enum value: WEEKDAY_WEDNESDAY = 3;
     */
    Weekday[Weekday["WEDNESDAY"] = 3] = "WEDNESDAY";
    /**
     * Thursday (ISO 4).
     *
     * @generated from enum value: WEEKDAY_THURSDAY = 4;
     */
    Weekday[Weekday["THURSDAY"] = 4] = "THURSDAY";
    /**
     * Friday (ISO 5).
     *
     * @generated from enum value: WEEKDAY_FRIDAY = 5;
     */
    Weekday[Weekday["FRIDAY"] = 5] = "FRIDAY";
    /**
     * Saturday (ISO 6).
     *
     * @generated from enum value: WEEKDAY_SATURDAY = 6;
     */
    Weekday[Weekday["SATURDAY"] = 6] = "SATURDAY";
    /**
     * Sunday (ISO 7).
     *
     * @generated from enum value: WEEKDAY_SUNDAY = 7;
     */
    Weekday[Weekday["SUNDAY"] = 7] = "SUNDAY";
})(Weekday || (Weekday = {}));
/**
 * Describes the enum duetime.v1.Weekday.
 */
export const WeekdaySchema = /*@__PURE__*/ enumDesc(file_duetime_v1_duetime, 0);
/**
 * AtClose says where positive business time that ends exactly at a closing is
 * due (docs/semantics.md §4). Negative amounts and other kinds of duration are unaffected.
 *
 * @generated from enum duetime.v1.AtClose
 */
export var AtClose;
(function (AtClose) {
    /**
     * Unset: the same as AT_CLOSE_END_OF_WINDOW.
     *
     * @generated from enum value: AT_CLOSE_UNSPECIFIED = 0;
     */
    AtClose[AtClose["UNSPECIFIED"] = 0] = "UNSPECIFIED";
    /**
     * Due at the closing instant (Friday 16:00 + 1bh → Friday 17:00).
     *
     * @generated from enum value: AT_CLOSE_END_OF_WINDOW = 1;
     */
    AtClose[AtClose["END_OF_WINDOW"] = 1] = "END_OF_WINDOW";
    /**
     * Due at the next opening (Friday 16:00 + 1bh → Monday 09:00), as pandas'
     * CustomBusinessHour and jBPM answer.
     *
     * @generated from enum value: AT_CLOSE_NEXT_OPEN = 2;
     */
    AtClose[AtClose["NEXT_OPEN"] = 2] = "NEXT_OPEN";
})(AtClose || (AtClose = {}));
/**
 * Describes the enum duetime.v1.AtClose.
 */
export const AtCloseSchema = /*@__PURE__*/ enumDesc(file_duetime_v1_duetime, 1);
/**
 * Roll says where a due time moves when its local date is not a business day
 * (docs/semantics.md §15, ISDA 2006 §4.12's business day conventions). It
 * applies to elapsed and ISO 8601 durations only; business days (bd) and
 * business time (bh, bm) already count business time, and a roll beside them
 * is INVALID_ARGUMENT on "roll". The same rule can be written in the duration
 * text instead ("P1M@following"); giving it in both places is
 * INVALID_ARGUMENT naming both fields.
 *
 * @generated from enum duetime.v1.Roll
 */
export var Roll;
(function (Roll) {
    /**
     * Unset: no roll, unless the duration text gives one.
     *
     * @generated from enum value: ROLL_UNSPECIFIED = 0;
     */
    Roll[Roll["UNSPECIFIED"] = 0] = "UNSPECIFIED";
    /**
     * The first business day after the date ("following").
     *
     * @generated from enum value: ROLL_FOLLOWING = 1;
     */
    Roll[Roll["FOLLOWING"] = 1] = "FOLLOWING";
    /**
     * The last business day before the date ("preceding").
     *
     * @generated from enum value: ROLL_PRECEDING = 2;
     */
    Roll[Roll["PRECEDING"] = 2] = "PRECEDING";
    /**
     * ROLL_FOLLOWING, unless that is in another calendar month than the date:
     * then ROLL_PRECEDING ("modified-following").
     *
     * @generated from enum value: ROLL_MODIFIED_FOLLOWING = 3;
     */
    Roll[Roll["MODIFIED_FOLLOWING"] = 3] = "MODIFIED_FOLLOWING";
    /**
     * ROLL_PRECEDING, unless that is in another calendar month than the date:
     * then ROLL_FOLLOWING ("modified-preceding").
     *
     * @generated from enum value: ROLL_MODIFIED_PRECEDING = 4;
     */
    Roll[Roll["MODIFIED_PRECEDING"] = 4] = "MODIFIED_PRECEDING";
})(Roll || (Roll = {}));
/**
 * Describes the enum duetime.v1.Roll.
 */
export const RollSchema = /*@__PURE__*/ enumDesc(file_duetime_v1_duetime, 2);
/**
 * ClockMeasure is what a clock counts, following its target's kind (docs/semantics.md §11).
 *
 * @generated from enum duetime.v1.ClockMeasure
 */
export var ClockMeasure;
(function (ClockMeasure) {
    /**
     * Not a measure; an SLA clock state with it is INVALID_ARGUMENT.
     *
     * @generated from enum value: CLOCK_MEASURE_UNSPECIFIED = 0;
     */
    ClockMeasure[ClockMeasure["UNSPECIFIED"] = 0] = "UNSPECIFIED";
    /**
     * Real elapsed time (targets in ms, s, m, h, d, w).
     *
     * @generated from enum value: CLOCK_MEASURE_ELAPSED = 1;
     */
    ClockMeasure[ClockMeasure["ELAPSED"] = 1] = "ELAPSED";
    /**
     * Business-day time: every instant of a business day's local date counts
     * (targets in bd).
     *
     * @generated from enum value: CLOCK_MEASURE_BUSINESS_DAY = 2;
     */
    ClockMeasure[ClockMeasure["BUSINESS_DAY"] = 2] = "BUSINESS_DAY";
    /**
     * Business time: the calendar's open time (targets in bh, bm).
     *
     * @generated from enum value: CLOCK_MEASURE_BUSINESS_TIME = 3;
     */
    ClockMeasure[ClockMeasure["BUSINESS_TIME"] = 3] = "BUSINESS_TIME";
})(ClockMeasure || (ClockMeasure = {}));
/**
 * Describes the enum duetime.v1.ClockMeasure.
 */
export const ClockMeasureSchema = /*@__PURE__*/ enumDesc(file_duetime_v1_duetime, 3);
/**
 * ClockStatus is the state an SLA clock is in.
 *
 * @generated from enum duetime.v1.ClockStatus
 */
export var ClockStatus;
(function (ClockStatus) {
    /**
     * Not a status; an SLA clock state with it is INVALID_ARGUMENT.
     *
     * @generated from enum value: CLOCK_STATUS_UNSPECIFIED = 0;
     */
    ClockStatus[ClockStatus["UNSPECIFIED"] = 0] = "UNSPECIFIED";
    /**
     * Counting down to deadline_time.
     *
     * @generated from enum value: CLOCK_STATUS_RUNNING = 1;
     */
    ClockStatus[ClockStatus["RUNNING"] = 1] = "RUNNING";
    /**
     * Stopped for now with `remaining` left, in the clock's measure.
     *
     * @generated from enum value: CLOCK_STATUS_PAUSED = 2;
     */
    ClockStatus[ClockStatus["PAUSED"] = 2] = "PAUSED";
    /**
     * Done: the work was finished (see `met`); no later event is accepted.
     *
     * @generated from enum value: CLOCK_STATUS_STOPPED = 3;
     */
    ClockStatus[ClockStatus["STOPPED"] = 3] = "STOPPED";
})(ClockStatus || (ClockStatus = {}));
/**
 * Describes the enum duetime.v1.ClockStatus.
 */
export const ClockStatusSchema = /*@__PURE__*/ enumDesc(file_duetime_v1_duetime, 4);
/**
 * ClockEventType is what happens to an SLA clock (docs/semantics.md §11).
 *
 * @generated from enum duetime.v1.ClockEventType
 */
export var ClockEventType;
(function (ClockEventType) {
    /**
     * Not an event; INVALID_ARGUMENT.
     *
     * @generated from enum value: CLOCK_EVENT_TYPE_UNSPECIFIED = 0;
     */
    ClockEventType[ClockEventType["UNSPECIFIED"] = 0] = "UNSPECIFIED";
    /**
     * Pause a running clock: remaining = the time left to its deadline in its
     * measure (negative when already past it).
     *
     * @generated from enum value: CLOCK_EVENT_TYPE_PAUSE = 1;
     */
    ClockEventType[ClockEventType["PAUSE"] = 1] = "PAUSE";
    /**
     * Resume a paused clock: deadline = time + remaining in its measure.
     *
     * @generated from enum value: CLOCK_EVENT_TYPE_RESUME = 2;
     */
    ClockEventType[ClockEventType["RESUME"] = 2] = "RESUME";
    /**
     * Start over: RUNNING with deadline = time + target, whatever the status.
     *
     * @generated from enum value: CLOCK_EVENT_TYPE_RESET = 3;
     */
    ClockEventType[ClockEventType["RESET"] = 3] = "RESET";
    /**
     * Change the target (e.g. a tier change), keeping the status; see
     * RetargetAnchor.
     *
     * @generated from enum value: CLOCK_EVENT_TYPE_RETARGET = 4;
     */
    ClockEventType[ClockEventType["RETARGET"] = 4] = "RETARGET";
    /**
     * The work was done: STOPPED, `met` unless the clock was already breached.
     *
     * @generated from enum value: CLOCK_EVENT_TYPE_STOP = 5;
     */
    ClockEventType[ClockEventType["STOP"] = 5] = "STOP";
})(ClockEventType || (ClockEventType = {}));
/**
 * Describes the enum duetime.v1.ClockEventType.
 */
export const ClockEventTypeSchema = /*@__PURE__*/ enumDesc(file_duetime_v1_duetime, 5);
/**
 * RetargetAnchor is where a RETARGET's new target counts from.
 *
 * @generated from enum duetime.v1.RetargetAnchor
 */
export var RetargetAnchor;
(function (RetargetAnchor) {
    /**
     * Unset: the same as RETARGET_ANCHOR_EVENT.
     *
     * @generated from enum value: RETARGET_ANCHOR_UNSPECIFIED = 0;
     */
    RetargetAnchor[RetargetAnchor["UNSPECIFIED"] = 0] = "UNSPECIFIED";
    /**
     * From the event: the clock starts over with the new target.
     *
     * @generated from enum value: RETARGET_ANCHOR_EVENT = 1;
     */
    RetargetAnchor[RetargetAnchor["EVENT"] = 1] = "EVENT";
    /**
     * From the clock's start (or last reset): the new target less the time
     * already consumed while running, in the new target's measure.
     *
     * @generated from enum value: RETARGET_ANCHOR_START = 2;
     */
    RetargetAnchor[RetargetAnchor["START"] = 2] = "START";
})(RetargetAnchor || (RetargetAnchor = {}));
/**
 * Describes the enum duetime.v1.RetargetAnchor.
 */
export const RetargetAnchorSchema = /*@__PURE__*/ enumDesc(file_duetime_v1_duetime, 6);
/**
 * SlaMetricStatus is a policy metric's status (docs/semantics.md §17).
 *
 * @generated from enum duetime.v1.SlaMetricStatus
 */
export var SlaMetricStatus;
(function (SlaMetricStatus) {
    /**
     * Not a status.
     *
     * @generated from enum value: SLA_METRIC_STATUS_UNSPECIFIED = 0;
     */
    SlaMetricStatus[SlaMetricStatus["UNSPECIFIED"] = 0] = "UNSPECIFIED";
    /**
     * No START yet.
     *
     * @generated from enum value: SLA_METRIC_STATUS_NOT_STARTED = 1;
     */
    SlaMetricStatus[SlaMetricStatus["NOT_STARTED"] = 1] = "NOT_STARTED";
    /**
     * Counting down to its deadline.
     *
     * @generated from enum value: SLA_METRIC_STATUS_RUNNING = 2;
     */
    SlaMetricStatus[SlaMetricStatus["RUNNING"] = 2] = "RUNNING";
    /**
     * Paused with time remaining.
     *
     * @generated from enum value: SLA_METRIC_STATUS_PAUSED = 3;
     */
    SlaMetricStatus[SlaMetricStatus["PAUSED"] = 3] = "PAUSED";
    /**
     * Stopped; a START begins a new cycle.
     *
     * @generated from enum value: SLA_METRIC_STATUS_STOPPED = 4;
     */
    SlaMetricStatus[SlaMetricStatus["STOPPED"] = 4] = "STOPPED";
})(SlaMetricStatus || (SlaMetricStatus = {}));
/**
 * Describes the enum duetime.v1.SlaMetricStatus.
 */
export const SlaMetricStatusSchema = /*@__PURE__*/ enumDesc(file_duetime_v1_duetime, 7);
/**
 * SlaDueKind says what falls at the next action.
 *
 * @generated from enum duetime.v1.SlaDueKind
 */
export var SlaDueKind;
(function (SlaDueKind) {
    /**
     * Not a kind.
     *
     * @generated from enum value: SLA_DUE_KIND_UNSPECIFIED = 0;
     */
    SlaDueKind[SlaDueKind["UNSPECIFIED"] = 0] = "UNSPECIFIED";
    /**
     * A warning threshold is reached.
     *
     * @generated from enum value: SLA_DUE_KIND_WARNING = 1;
     */
    SlaDueKind[SlaDueKind["WARNING"] = 1] = "WARNING";
    /**
     * The deadline is reached.
     *
     * @generated from enum value: SLA_DUE_KIND_BREACH = 2;
     */
    SlaDueKind[SlaDueKind["BREACH"] = 2] = "BREACH";
})(SlaDueKind || (SlaDueKind = {}));
/**
 * Describes the enum duetime.v1.SlaDueKind.
 */
export const SlaDueKindSchema = /*@__PURE__*/ enumDesc(file_duetime_v1_duetime, 8);
/**
 * DueTimeService computes absolute due times and keeps a ledger of every answer.
 *
 * Errors: bad input is INVALID_ARGUMENT and a range limit is OUT_OF_RANGE, both
 * with a google.rpc.BadRequest detail naming the field (e.g.
 * "calendar.holidays[1].date"); an idempotency key reused with a different
 * request is ALREADY_EXISTS; a ledger that cannot be written is UNAVAILABLE
 * (no answer is ever returned without its record); an SLA clock event the
 * clock's state does not allow is FAILED_PRECONDITION with a
 * google.rpc.PreconditionFailure detail.
 *
 * Every computing call (all but GetRecord, ListRecords and AnalyzeImpact,
 * which only read the ledger) records its answer in the ledger before
 * returning it, takes an idempotency_key, and answers with record_id,
 * time_zone, calendar_version, rules_version, tzdata_version and warnings.
 *
 * Idempotency namespaces: a caller may send the gRPC request metadata
 * "x-duetime-namespace" (1 to 64 characters of A-Z a-z 0-9 . _ -) with a
 * computing call; its idempotency_key is then scoped to that namespace, so two
 * teams using the same key never collide. Without it the namespace is ""
 * (the default one). A bad value is INVALID_ARGUMENT on the field "metadata
 * x-duetime-namespace". The record shows the namespace.
 *
 * HTTP/JSON: every RPC but StreamComputeDueTimes is also served as JSON over
 * HTTP (`duetime serve --http-port`) at the path its google.api.http option
 * names (AIP-127), with the request and response in the protobuf JSON
 * mapping. The same application layer answers and records it; the namespace
 * is the HTTP header "x-duetime-namespace"; errors are AIP-193 JSON
 * ({"error": {code, message, status, details}}) with the same status and
 * details as over gRPC.
 *
 * Input size limits (INVALID_ARGUMENT naming the field): idempotency_key at
 * most 200 characters and not only whitespace; calendar.time_zone at most 64;
 * calendar.bundle at most 128; durations and targets at most 256; names of
 * holidays, date overrides, extra working days and deadlines at most 200, with
 * no control characters; at most 10000 holidays, 10000 date_overrides and
 * 10000 extra_working_days; at most 100 deadlines; record_id is 32 hex digits.
 *
 * @generated from service duetime.v1.DueTimeService
 */
export const DueTimeService = /*@__PURE__*/ serviceDesc(file_duetime_v1_duetime, 0);
/**
 * CalendarService describes the calendar bundles the server answers from
 * (docs/semantics.md §7): compiled, hashed versions of the TOML sources in calendars/.
 * Its calls are read-only and not recorded. Errors as in DueTimeService.
 *
 * @generated from service duetime.v1.CalendarService
 */
export const CalendarService = /*@__PURE__*/ serviceDesc(file_duetime_v1_duetime, 1);
