import type { GenExtension, GenFile } from "@bufbuild/protobuf/codegenv2";
import type { HttpRule } from "./http_pb.js";
import type { MethodOptions } from "@bufbuild/protobuf/wkt";
/**
 * Describes the file google/api/annotations.proto.
 */
export declare const file_google_api_annotations: GenFile;
/**
 * See `HttpRule`.
 *
 * @generated from extension: google.api.HttpRule http = 72295728;
 */
export declare const http: GenExtension<MethodOptions, HttpRule>;
