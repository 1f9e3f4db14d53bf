// The DICOM node family (catalog category healthcare), listed in src/main/plugins.ts.
import { imagingStudyLink } from "./imaging-study-link";
import { dicomQuery } from "./query";
import { dicomRetrieve } from "./retrieve";
import { dicomStore } from "./store";

export const DICOM_NODES = [dicomQuery, dicomRetrieve, dicomStore, imagingStudyLink];
